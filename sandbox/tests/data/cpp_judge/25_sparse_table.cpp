#include <bits/stdc++.h>
using namespace std;
int sp[18][100005];
int main() {
    ios::sync_with_stdio(false); cin.tie(nullptr);
    int n, q; cin >> n >> q;
    for (int i = 0; i < n; i++) cin >> sp[0][i];
    for (int k = 1; (1 << k) <= n; k++)
        for (int i = 0; i + (1 << k) <= n; i++) sp[k][i] = min(sp[k-1][i], sp[k-1][i + (1 << (k-1))]);
    while (q--) {
        int l, r; cin >> l >> r; l--; // [l, r)
        int k = __lg(r - l);
        cout << min(sp[k][l], sp[k][r - (1 << k)]) << '\n';
    }
}
