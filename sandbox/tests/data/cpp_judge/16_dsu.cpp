#include <bits/stdc++.h>
using namespace std;
struct DSU {
    vector<int> p, sz;
    DSU(int n) : p(n), sz(n, 1) { iota(p.begin(), p.end(), 0); }
    int find(int x) { return p[x] == x ? x : p[x] = find(p[x]); }
    bool unite(int a, int b) {
        a = find(a); b = find(b);
        if (a == b) return false;
        if (sz[a] < sz[b]) swap(a, b);
        p[b] = a; sz[a] += sz[b]; return true;
    }
};
int main() {
    int n, m; cin >> n >> m;
    DSU d(n + 1);
    int comps = n, biggest = 1;
    for (int i = 0; i < m; i++) {
        int a, b; cin >> a >> b;
        if (d.unite(a, b)) { comps--; biggest = max(biggest, d.sz[d.find(a)]); }
        cout << comps << " " << biggest << "\n";
    }
}
