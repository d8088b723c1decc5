#include <bits/stdc++.h>
using namespace std;
typedef long long ll;
const ll MOD = 1e9 + 7;
typedef vector<vector<ll>> Mat;
Mat mul(const Mat &a, const Mat &b) {
    int n = a.size();
    Mat c(n, vector<ll>(n, 0));
    for (int i = 0; i < n; i++) for (int k = 0; k < n; k++) if (a[i][k])
        for (int j = 0; j < n; j++) c[i][j] = (c[i][j] + a[i][k] * b[k][j]) % MOD;
    return c;
}
int main() {
    int n, m; ll k; cin >> n >> m >> k;
    Mat a(n, vector<ll>(n, 0)), r(n, vector<ll>(n, 0));
    for (int i = 0; i < m; i++) { int x, y; cin >> x >> y; a[x-1][y-1]++; }
    for (int i = 0; i < n; i++) r[i][i] = 1;
    while (k) { if (k & 1) r = mul(r, a); a = mul(a, a); k >>= 1; }
    cout << r[0][n-1] << "\n";
}
