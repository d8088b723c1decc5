#include <bits/stdc++.h>
using namespace std;
const int MOD = 1e9 + 7;
int main() {
    int n, x; cin >> n >> x;
    vector<int> c(n);
    for (auto &v : c) cin >> v;
    vector<int> dp(x + 1, 0); dp[0] = 1;
    for (int coin : c)
        for (int s = coin; s <= x; s++) dp[s] = (dp[s] + dp[s - coin]) % MOD;
    cout << dp[x] << "\n";
}
