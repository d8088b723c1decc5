#include <bits/stdc++.h>
using namespace std;
int main() {
    int n; scanf("%d", &n);
    double sum = 0, sq = 0;
    vector<double> a(n);
    for (int i = 0; i < n; i++) { scanf("%lf", &a[i]); sum += a[i]; sq += a[i] * a[i]; }
    double mean = sum / n;
    double var = sq / n - mean * mean;
    sort(a.begin(), a.end());
    double median = n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
    printf("%.4f %.4f %.4f\n", mean, sqrt(max(0.0, var)), median);
}
