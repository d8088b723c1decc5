#include <bits/stdc++.h>
using namespace std;
int main() {
    int n; cin >> n;
    bitset<100001> can;
    can[0] = 1;
    int total = 0;
    for (int i = 0; i < n; i++) { int x; cin >> x; can |= can << x; total += x; }
    vector<int> sums;
    for (int s = 1; s <= total; s++) if (can[s]) sums.push_back(s);
    cout << sums.size() << "\n";
    cout << *min_element(sums.begin(), sums.end(), [&](int a, int b) { return abs(total - 2 * a) < abs(total - 2 * b); }) << "\n";
}
