#include <bits/stdc++.h>
using namespace std;
const long long INF = 1e18;
long long d[105][105];
int main() {
    int n, m, q; cin >> n >> m >> q;
    for (int i = 1; i <= n; i++) for (int j = 1; j <= n; j++) d[i][j] = i == j ? 0 : INF;
    while (m--) { int a, b; long long c; cin >> a >> b >> c; d[a][b] = min(d[a][b], c); d[b][a] = min(d[b][a], c); }
    for (int k = 1; k <= n; k++) for (int i = 1; i <= n; i++) for (int j = 1; j <= n; j++)
        if (d[i][k] + d[k][j] < d[i][j]) d[i][j] = d[i][k] + d[k][j];
    while (q--) { int a, b; cin >> a >> b; cout << (d[a][b] >= INF ? -1 : d[a][b]) << "\n"; }
}
