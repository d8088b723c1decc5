#include <bits/stdc++.h>
using namespace std;
using ll = long long;
int main() {
    int t; cin >> t;
    while (t--) {
        ll a, b; cin >> a >> b;
        ll g = __gcd(a, b);
        cout << g << " " << a / g * b << "\n";
    }
}
