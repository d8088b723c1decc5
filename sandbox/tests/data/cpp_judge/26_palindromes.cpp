#include <bits/stdc++.h>
using namespace std;
int main() {
    int t; cin >> t;
    string s;
    while (t--) {
        cin >> s;
        string r(s.rbegin(), s.rend());
        cout << (s == r ? "YES" : "NO") << "\n";
    }
}
