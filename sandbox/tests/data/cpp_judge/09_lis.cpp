#include <bits/stdc++.h>
using namespace std;
int main() {
    ios::sync_with_stdio(0); cin.tie(0);
    int n; cin >> n;
    vector<int> d;
    for (int i = 0; i < n; i++) {
        int x; cin >> x;
        auto it = lower_bound(d.begin(), d.end(), x);
        if (it == d.end()) d.push_back(x); else *it = x;
    }
    cout << d.size() << '\n';
}
