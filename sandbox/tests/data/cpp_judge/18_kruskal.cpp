#include <bits/stdc++.h>
using namespace std;
vector<int> par;
int f(int x) { while (par[x] != x) x = par[x] = par[par[x]]; return x; }
int main() {
    int n, m; cin >> n >> m;
    vector<tuple<long long,int,int>> e(m);
    for (auto &[w, a, b] : e) cin >> a >> b >> w;
    sort(e.begin(), e.end());
    par.resize(n + 1); iota(par.begin(), par.end(), 0);
    long long total = 0; int used = 0;
    for (auto [w, a, b] : e) { a = f(a); b = f(b); if (a != b) { par[a] = b; total += w; used++; } }
    if (used != n - 1) cout << "IMPOSSIBLE\n"; else cout << total << "\n";
}
