#include <bits/stdc++.h>
using namespace std;
int main() {
    int n; cin >> n;
    vector<long long> v(n);
    iota(v.begin(), v.end(), 1);
    long long s = accumulate(v.begin(), v.end(), 0LL);
    long long sq = inner_product(v.begin(), v.end(), v.begin(), 0LL);
    vector<long long> pre(n);
    partial_sum(v.begin(), v.end(), pre.begin());
    cout << s << " " << sq << " " << pre[n / 2] << " " << lcm(12LL, (long long)n) << "\n";
}
