#include <bits/stdc++.h>
using namespace std;
typedef long long ll;
const ll MOD = 1000000007;
const int N = 1000001;
ll fact[N], inv[N];
ll pw(ll b, ll e) { ll r = 1; b %= MOD; while (e) { if (e & 1) r = r * b % MOD; b = b * b % MOD; e >>= 1; } return r; }
int main() {
    fact[0] = 1;
    for (int i = 1; i < N; i++) fact[i] = fact[i-1] * i % MOD;
    inv[N-1] = pw(fact[N-1], MOD - 2);
    for (int i = N - 1; i > 0; i--) inv[i-1] = inv[i] * i % MOD;
    int q; scanf("%d", &q);
    while (q--) {
        int a, b; scanf("%d %d", &a, &b);
        printf("%lld\n", b < 0 || b > a ? 0LL : fact[a] * inv[b] % MOD * inv[a-b] % MOD);
    }
}
