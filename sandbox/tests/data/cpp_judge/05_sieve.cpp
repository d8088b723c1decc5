#include <bits/stdc++.h>
using namespace std;
int main() {
    int n; cin >> n;
    vector<bool> comp(n + 1, false);
    int cnt = 0;
    for (int i = 2; i <= n; i++) {
        if (!comp[i]) { cnt++; for (long long j = 1LL * i * i; j <= n; j += i) comp[j] = true; }
    }
    cout << cnt << "\n";
}
