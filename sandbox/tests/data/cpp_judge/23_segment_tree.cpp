#include <bits/stdc++.h>
using namespace std;
typedef long long ll;
int sz;
vector<ll> t;
void upd(int i, ll v) { i += sz; t[i] = v; for (i >>= 1; i; i >>= 1) t[i] = t[2*i] + t[2*i+1]; }
ll qry(int l, int r) { // [l, r)
    ll s = 0;
    for (l += sz, r += sz; l < r; l >>= 1, r >>= 1) { if (l & 1) s += t[l++]; if (r & 1) s += t[--r]; }
    return s;
}
int main() {
    int n, q; scanf("%d %d", &n, &q);
    sz = 1; while (sz < n) sz <<= 1;
    t.assign(2 * sz, 0);
    for (int i = 0; i < n; i++) { ll x; scanf("%lld", &x); t[sz + i] = x; }
    for (int i = sz - 1; i > 0; i--) t[i] = t[2*i] + t[2*i+1];
    while (q--) {
        int type; scanf("%d", &type);
        if (type == 1) { int k; ll u; scanf("%d %lld", &k, &u); upd(k - 1, u); }
        else { int a, b; scanf("%d %d", &a, &b); printf("%lld\n", qry(a - 1, b)); }
    }
}
