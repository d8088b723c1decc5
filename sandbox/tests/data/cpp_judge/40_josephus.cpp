#include <bits/stdc++.h>
using namespace std;
int main() {
    int n, k; cin >> n >> k;
    list<int> people;
    for (int i = 1; i <= n; i++) people.push_back(i);
    auto it = people.begin();
    vector<int> order;
    while (!people.empty()) {
        for (int s = 1; s < k; s++) { ++it; if (it == people.end()) it = people.begin(); }
        order.push_back(*it);
        it = people.erase(it);
        if (it == people.end()) it = people.begin();
    }
    for (size_t i = 0; i < order.size(); i++) cout << order[i] << (i + 1 < order.size() ? ' ' : '\n');
}
