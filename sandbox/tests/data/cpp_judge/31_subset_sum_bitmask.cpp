#include <bits/stdc++.h>
using namespace std;
int main() {
    int n; long long target; cin >> n >> target;
    vector<long long> a(n);
    for (auto &x : a) cin >> x;
    int cnt = 0;
    for (int mask = 0; mask < (1 << n); mask++) {
        long long s = 0;
        for (int i = 0; i < n; i++) if (mask >> i & 1) s += a[i];
        if (s == target) cnt++;
    }
    cout << cnt << '\n';
}
