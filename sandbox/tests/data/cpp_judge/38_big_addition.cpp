#include <bits/stdc++.h>
using namespace std;
string add(const string &a, const string &b) {
    string r;
    int i = a.size() - 1, j = b.size() - 1, carry = 0;
    while (i >= 0 || j >= 0 || carry) {
        int s = carry;
        if (i >= 0) s += a[i--] - '0';
        if (j >= 0) s += b[j--] - '0';
        r.push_back('0' + s % 10);
        carry = s / 10;
    }
    reverse(r.begin(), r.end());
    return r;
}
int main() { string a, b; cin >> a >> b; cout << add(a, b) << endl; }
