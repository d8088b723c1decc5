#include <bits/stdc++.h>
using namespace std;
int main() {
    int t; cin >> t;
    cout << fixed << setprecision(6);
    while (t--) {
        double a, b, c; cin >> a >> b >> c;
        if (a + b <= c || a + c <= b || b + c <= a) { cout << -1 << "\n"; continue; }
        double s = (a + b + c) / 2;
        cout << sqrt(s * (s - a) * (s - b) * (s - c)) << "\n";
    }
}
