#include <bits/stdc++.h>
using namespace std;
int main() {
    string line;
    getline(cin, line);
    vector<string> parts;
    string cur;
    for (char c : line) { if (c == ',') { parts.push_back(cur); cur.clear(); } else cur += c; }
    parts.push_back(cur);
    long long sum = 0;
    for (auto &p : parts) sum += stoll(p);
    cout << sum << " " << stoi(parts.front()) * 2 << " " << to_string(sum).size() << "\n";
}
