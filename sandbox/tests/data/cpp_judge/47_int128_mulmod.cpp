#include <bits/stdc++.h>
using namespace std;
typedef unsigned long long u64;
typedef __uint128_t u128;
int main() {
    int t; cin >> t;
    while (t--) {
        u64 a, b, m; cin >> a >> b >> m;
        cout << (u64)((u128)a * b % m) << "\n";
    }
}
