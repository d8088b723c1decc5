#include <bits/stdc++.h>
using namespace std;
int main() {
    int n, m; cin >> n >> m;
    vector<vector<int>> g(n + 1);
    for (int i = 0; i < m; i++) { int a, b; cin >> a >> b; g[a].push_back(b); g[b].push_back(a); }
    vector<int> col(n + 1, 0);
    for (int s = 1; s <= n; s++) {
        if (col[s]) continue;
        col[s] = 1;
        stack<int> st; st.push(s);
        while (!st.empty()) {
            int u = st.top(); st.pop();
            for (int v : g[u]) {
                if (!col[v]) { col[v] = 3 - col[u]; st.push(v); }
                else if (col[v] == col[u]) { cout << "IMPOSSIBLE" << endl; return 0; }
            }
        }
    }
    for (int i = 1; i <= n; i++) cout << col[i] << (i == n ? '\n' : ' ');
}
