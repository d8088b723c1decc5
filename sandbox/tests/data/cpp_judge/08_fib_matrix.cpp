#include <bits/stdc++.h>
using namespace std;
typedef unsigned long long ull;
typedef array<array<ull, 2>, 2> M;
const ull MOD = 1000000007ULL;
M mul(const M &a, const M &b) {
    M c{};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 2; k++) c[i][j] = (c[i][j] + a[i][k] * b[k][j]) % MOD;
    return c;
}
int main() {
    long long n; cin >> n;
    M r{}; r[0][0] = r[1][1] = 1;
    M b{}; b[0][0] = b[0][1] = b[1][0] = 1;
    while (n) { if (n & 1) r = mul(r, b); b = mul(b, b); n >>= 1; }
    cout << r[0][1] << endl;
}
