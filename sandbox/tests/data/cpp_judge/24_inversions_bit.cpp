#include <bits/stdc++.h>
using namespace std;
int n;
vector<int> bit;
void add(int i) { for (; i <= n; i += i & -i) bit[i]++; }
int sum(int i) { int s = 0; for (; i > 0; i -= i & -i) s += bit[i]; return s; }
int main() {
    cin >> n;
    vector<int> a(n), s;
    for (auto &x : a) cin >> x;
    s = a; sort(s.begin(), s.end()); s.erase(unique(s.begin(), s.end()), s.end());
    bit.assign(n + 1, 0);
    long long inv = 0;
    for (int i = n - 1; i >= 0; i--) {
        int r = lower_bound(s.begin(), s.end(), a[i]) - s.begin() + 1;
        inv += sum(r - 1);
        add(r);
    }
    cout << inv << "\n";
}
