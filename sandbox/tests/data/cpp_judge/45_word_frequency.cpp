#include <bits/stdc++.h>
using namespace std;
int main() {
    unordered_map<string, int> freq;
    string line, w;
    while (getline(cin, line)) {
        stringstream ss(line);
        while (ss >> w) {
            transform(w.begin(), w.end(), w.begin(), ::tolower);
            freq[w]++;
        }
    }
    vector<pair<int, string>> v;
    for (auto &[k, c] : freq) v.push_back({-c, k});
    sort(v.begin(), v.end());
    for (int i = 0; i < (int)min<size_t>(3, v.size()); i++) cout << v[i].second << " " << -v[i].first << "\n";
}
