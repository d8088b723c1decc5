#include <bits/stdc++.h>
using namespace std;
int main() {
    int n; cin >> n;
    long long total = 0;
    int best = -1; unsigned bestv = 0;
    for (int i = 0; i < n; i++) {
        unsigned x; cin >> x;
        int c = __builtin_popcount(x);
        total += c;
        if (c > best) { best = c; bestv = x; }
    }
    cout << total << " " << bestv << " " << (bestv ? __builtin_ctz(bestv) : -1) << "\n";
}
