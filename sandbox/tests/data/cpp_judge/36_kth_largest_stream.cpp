#include <bits/stdc++.h>
using namespace std;
int main() {
    int n, k; cin >> n >> k;
    priority_queue<long long, vector<long long>, greater<long long>> pq;
    for (int i = 0; i < n; i++) {
        long long x; cin >> x;
        pq.push(x);
        if ((int)pq.size() > k) pq.pop();
        if ((int)pq.size() == k) cout << pq.top(); else cout << -1;
        cout << (i + 1 == n ? '\n' : ' ');
    }
}
