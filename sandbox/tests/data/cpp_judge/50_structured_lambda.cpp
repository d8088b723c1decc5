#include <bits/stdc++.h>
using namespace std;
int main() {
    int n; cin >> n;
    vector<tuple<string, int, int>> st(n);
    for (auto &[name, score, age] : st) cin >> name >> score >> age;
    sort(st.begin(), st.end(), [](const auto &a, const auto &b) {
        if (get<1>(a) != get<1>(b)) return get<1>(a) > get<1>(b);
        if (get<2>(a) != get<2>(b)) return get<2>(a) < get<2>(b);
        return get<0>(a) < get<0>(b);
    });
    function<void(int)> print = [&](int i) {
        if (i == (int)st.size()) return;
        auto &[name, score, age] = st[i];
        cout << name << " " << score << "\n";
        print(i + 1);
    };
    print(0);
}
