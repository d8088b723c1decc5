#include <bits/stdc++.h>
using namespace std;
int main() {
    string s; cin >> s;
    sort(s.begin(), s.end());
    vector<string> out;
    do { out.push_back(s); } while (next_permutation(s.begin(), s.end()));
    cout << out.size() << "\n";
    for (auto &x : out) cout << x << "\n";
}
