#include <bits/stdc++.h>
using namespace std;
const int LOG = 18;
int up[LOG][200005], dep[200005];
int main() {
    ios::sync_with_stdio(false); cin.tie(nullptr);
    int n, q; cin >> n >> q;
    up[0][1] = 1;
    for (int i = 2; i <= n; i++) { cin >> up[0][i]; }
    // parents are given with p < i, so depths fill in order
    for (int i = 2; i <= n; i++) dep[i] = dep[up[0][i]] + 1;
    for (int k = 1; k < LOG; k++) for (int i = 1; i <= n; i++) up[k][i] = up[k-1][up[k-1][i]];
    while (q--) {
        int a, b; cin >> a >> b;
        if (dep[a] < dep[b]) swap(a, b);
        int diff = dep[a] - dep[b];
        for (int k = 0; k < LOG; k++) if (diff >> k & 1) a = up[k][a];
        if (a != b) {
            for (int k = LOG - 1; k >= 0; k--) if (up[k][a] != up[k][b]) { a = up[k][a]; b = up[k][b]; }
            a = up[0][a];
        }
        cout << a << '\n';
    }
}
