#include <bits/stdc++.h>
using namespace std;
int main() {
    string text, pat; cin >> text >> pat;
    string s = pat + "#" + text;
    int n = s.size();
    vector<int> pi(n, 0);
    int cnt = 0;
    for (int i = 1; i < n; i++) {
        int j = pi[i-1];
        while (j > 0 && s[i] != s[j]) j = pi[j-1];
        if (s[i] == s[j]) j++;
        pi[i] = j;
        if (j == (int)pat.size()) cnt++;
    }
    cout << cnt << endl;
}
