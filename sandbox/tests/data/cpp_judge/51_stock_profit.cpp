#include <bits/stdc++.h>
using namespace std;
int main() {
    int n; cin >> n;
    vector<long long> p(n);
    for (auto &x : p) cin >> x;
    long long best = 0, lo = LLONG_MAX, multi = 0;
    for (int i = 0; i < n; i++) {
        lo = min(lo, p[i]);
        best = max(best, p[i] - lo);
        if (i) multi += max(0LL, p[i] - p[i-1]);
    }
    cout << best << ' ' << multi << '\n';
}
