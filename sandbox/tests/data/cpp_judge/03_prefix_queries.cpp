#include <bits/stdc++.h>
using namespace std;
#define ll long long
int main() {
    ios_base::sync_with_stdio(false); cin.tie(NULL);
    int n, q; cin >> n >> q;
    vector<ll> p(n + 1, 0);
    for (int i = 1; i <= n; i++) { ll x; cin >> x; p[i] = p[i - 1] + x; }
    while (q--) { int l, r; cin >> l >> r; cout << p[r] - p[l - 1] << "\n"; }
}
