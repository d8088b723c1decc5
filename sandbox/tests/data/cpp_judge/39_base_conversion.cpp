#include <bits/stdc++.h>
using namespace std;
int main() {
    int t; cin >> t;
    while (t--) {
        unsigned long long n; int b; cin >> n >> b;
        if (n == 0) { cout << "0\n"; continue; }
        string s;
        const char *digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        while (n) { s += digits[n % b]; n /= b; }
        reverse(s.begin(), s.end());
        cout << s << "\n";
    }
}
