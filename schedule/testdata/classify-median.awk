# classify-median.awk reads `go test -bench Classify -count=N` output and prints, per row shape,
# the median CPU time per row over the N runs, their spread and the most allocations any run
# saw: one run on a shared 2-core machine moves by up to ±40%, the median of several does not.
/^BenchmarkClassify\// {
	name = $1
	sub(/^BenchmarkClassify\//, "", name)
	sub(/-[0-9]+$/, "", name)
	cpu = ""; allocs = 0
	for (i = 2; i < NF; i++) {
		if ($(i + 1) == "cpu-ns/op") cpu = $i
		if ($(i + 1) == "ns/op" && cpu == "") wall = $i
		if ($(i + 1) == "allocs/op") allocs = $i
	}
	if (cpu == "") cpu = wall
	if (!(name in n)) order[++shapes] = name
	v[name, ++n[name]] = cpu + 0
	if (allocs + 0 > most[name]) most[name] = allocs + 0
}
END {
	if (shapes == 0) exit
	print ""
	printf "| Classify shape | runs | median cpu-ns/row | min | max | allocs | ≤ 50 ns, 0 allocs |\n"
	printf "|---|---:|---:|---:|---:|---:|---|\n"
	met = 0
	for (s = 1; s <= shapes; s++) {
		name = order[s]; k = n[name]
		for (i = 1; i <= k; i++) a[i] = v[name, i]
		for (i = 2; i <= k; i++) { x = a[i]; j = i - 1; while (j >= 1 && a[j] > x) { a[j + 1] = a[j]; j-- } a[j + 1] = x }
		med = (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
		ok = (med <= 50 && most[name] == 0) ? "yes" : "no"
		if (ok == "yes") met++
		printf "| %s | %d | %.1f | %.1f | %.1f | %d | %s |\n", name, k, med, a[1], a[k], most[name], ok
	}
	printf "\n%d of %d shapes meet the goal on their median.\n", met, shapes
}
