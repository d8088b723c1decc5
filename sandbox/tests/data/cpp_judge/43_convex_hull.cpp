#include <bits/stdc++.h>
using namespace std;
typedef long long ll;
struct P { ll x, y; bool operator<(const P &o) const { return tie(x, y) < tie(o.x, o.y); } };
ll cross(P o, P a, P b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }
int main() {
    int n; cin >> n;
    vector<P> p(n);
    for (auto &q : p) cin >> q.x >> q.y;
    sort(p.begin(), p.end());
    p.erase(unique(p.begin(), p.end(), [](P a, P b) { return a.x == b.x && a.y == b.y; }), p.end());
    n = p.size();
    vector<P> h(2 * n);
    int k = 0;
    for (int i = 0; i < n; i++) { while (k >= 2 && cross(h[k-2], h[k-1], p[i]) <= 0) k--; h[k++] = p[i]; }
    for (int i = n - 2, t = k + 1; i >= 0; i--) { while (k >= t && cross(h[k-2], h[k-1], p[i]) <= 0) k--; h[k++] = p[i]; }
    h.resize(max(1, k - 1));
    ll area2 = 0;
    for (size_t i = 0; i < h.size(); i++) { auto a = h[i], b = h[(i + 1) % h.size()]; area2 += a.x * b.y - a.y * b.x; }
    cout << h.size() << " " << llabs(area2) << "\n";
}
