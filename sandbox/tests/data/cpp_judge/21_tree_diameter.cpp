#include <bits/stdc++.h>
using namespace std;
int n;
vector<vector<int>> g;
pair<int,int> bfs(int s) {
    vector<int> d(n + 1, -1); d[s] = 0;
    queue<int> q; q.push(s);
    int far = s;
    while (!q.empty()) {
        int u = q.front(); q.pop();
        if (d[u] > d[far]) far = u;
        for (int v : g[u]) if (d[v] < 0) { d[v] = d[u] + 1; q.push(v); }
    }
    return {far, d[far]};
}
int main() {
    cin >> n; g.assign(n + 1, {});
    for (int i = 0; i < n - 1; i++) { int a, b; cin >> a >> b; g[a].push_back(b); g[b].push_back(a); }
    cout << bfs(bfs(1).first).second << "\n";
}
