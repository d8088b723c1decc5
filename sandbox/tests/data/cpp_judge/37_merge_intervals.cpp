#include <bits/stdc++.h>
using namespace std;
int main() {
    int n; cin >> n;
    vector<pair<long long,long long>> v(n);
    for (auto &[l, r] : v) cin >> l >> r;
    sort(v.begin(), v.end());
    vector<pair<long long,long long>> out;
    for (auto [l, r] : v) {
        if (!out.empty() && l <= out.back().second) out.back().second = max(out.back().second, r);
        else out.push_back({l, r});
    }
    long long covered = 0;
    for (auto [l, r] : out) covered += r - l;
    cout << out.size() << " " << covered << "\n";
}
