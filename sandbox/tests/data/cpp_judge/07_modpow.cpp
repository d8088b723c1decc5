#include <bits/stdc++.h>
using namespace std;
typedef long long ll;
const ll MOD = 1000000007LL;
ll power(ll b, ll e, ll m) {
    ll r = 1; b %= m;
    while (e > 0) { if (e & 1) r = r * b % m; b = b * b % m; e >>= 1; }
    return r;
}
int main() {
    int q; cin >> q;
    while (q--) { ll b, e; cin >> b >> e; cout << power(b, e, MOD) << '\n'; }
}
