#include <bits/stdc++.h>
using namespace std;
int main() {
    int q; cin >> q;
    multiset<int> ms;
    while (q--) {
        string op; int x; cin >> op;
        if (op == "add") { cin >> x; ms.insert(x); }
        else if (op == "del") { cin >> x; auto it = ms.find(x); if (it != ms.end()) ms.erase(it); }
        else if (op == "min") { cout << (ms.empty() ? string("EMPTY") : to_string(*ms.begin())) << "\n"; }
        else if (op == "max") { cout << (ms.empty() ? string("EMPTY") : to_string(*ms.rbegin())) << "\n"; }
        else if (op == "cnt") { cin >> x; cout << ms.count(x) << "\n"; }
    }
}
