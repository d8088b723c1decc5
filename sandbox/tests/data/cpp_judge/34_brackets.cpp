#include <bits/stdc++.h>
using namespace std;
int main() {
    int t; cin >> t;
    while (t--) {
        string s; cin >> s;
        stack<char> st;
        bool ok = true;
        map<char, char> open = {{')', '('}, {']', '['}, {'}', '{'}};
        for (char c : s) {
            if (c == '(' || c == '[' || c == '{') st.push(c);
            else { if (st.empty() || st.top() != open[c]) { ok = false; break; } st.pop(); }
        }
        cout << (ok && st.empty() ? "YES" : "NO") << '\n';
    }
}
