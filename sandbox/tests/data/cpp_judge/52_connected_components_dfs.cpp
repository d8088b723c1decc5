#include <bits/stdc++.h>
using namespace std;
vector<int> g[100005];
bool vis[100005];
int dfs(int u) {
    vis[u] = true;
    int c = 1;
    for (int v : g[u]) if (!vis[v]) c += dfs(v);
    return c;
}
int main() {
    int n, m; cin >> n >> m;
    for (int i = 0; i < m; i++) { int a, b; cin >> a >> b; g[a].push_back(b); g[b].push_back(a); }
    vector<int> sizes;
    for (int i = 1; i <= n; i++) if (!vis[i]) sizes.push_back(dfs(i));
    sort(sizes.rbegin(), sizes.rend());
    cout << sizes.size() << "\n";
    for (size_t i = 0; i < sizes.size(); i++) cout << sizes[i] << (i + 1 == sizes.size() ? "\n" : " ");
}
