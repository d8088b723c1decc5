#include <bits/stdc++.h>
using namespace std;
int n, ans = 0;
bool col[20], d1[40], d2[40];
void go(int r) {
    if (r == n) { ans++; return; }
    for (int c = 0; c < n; c++) {
        if (col[c] || d1[r + c] || d2[r - c + n]) continue;
        col[c] = d1[r + c] = d2[r - c + n] = true;
        go(r + 1);
        col[c] = d1[r + c] = d2[r - c + n] = false;
    }
}
int main() { cin >> n; go(0); cout << ans << "\n"; }
