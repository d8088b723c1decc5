#include <bits/stdc++.h>
using namespace std;
typedef long long ll;
int main() {
    int n; ll t; cin >> n >> t;
    vector<ll> k(n);
    for (auto &x : k) cin >> x;
    ll lo = 0, hi = *min_element(k.begin(), k.end()) * t;
    while (lo < hi) {
        ll mid = lo + (hi - lo) / 2, made = 0;
        for (ll x : k) { made += mid / x; if (made >= t) break; }
        if (made >= t) hi = mid; else lo = mid + 1;
    }
    cout << lo << "\n";
}
