#include <bits/stdc++.h>
using namespace std;
int main() {
    long long n; cin >> n;
    vector<long long> seq{n};
    while (n != 1) { n = n % 2 ? 3 * n + 1 : n / 2; seq.push_back(n); }
    cout << seq.size() - 1 << " " << *max_element(seq.begin(), seq.end()) << "\n";
}
