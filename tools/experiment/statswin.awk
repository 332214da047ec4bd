# statswin.awk -- qwd's own figures over the load generator's window.
#
# Design note: qwd writes one "qwd-stats/1" JSON line per interval
# (docs/instrumentation.md, section 4); the runner starts it with a short
# interval (1 s) and keeps the intervals whose middle lies inside the
# measurement window [ws, we] (Unix seconds) of qwbots.  Input: the stats
# file flattened by jsonflat.awk (REC TAB PATH TAB VALUE).  Output:
# KEY=VALUE lines.
#   Counts and times are summed, so shares, rates and means are exact over
#   the kept intervals.  Percentiles cannot be merged exactly from
#   per-interval summaries: p50/p99 here are the means of the intervals'
#   percentiles weighted by their counts, and max is the largest max.
#   An interval with a null figure (nothing measured) adds nothing.
#   When no interval lies inside the window, intervals= 0 and every
#   figure is empty: the runner writes empty CSV fields, never zeros.

BEGIN { FS = "\t" }

{ v[$1, $2] = $3; if ($1 > nrec) nrec = $1 }

function num(r, k) { return ((r, k) in v && v[r, k] != "null") ? v[r, k] + 0 : "" }

# count-weighted sums of one histogram summary (request_time_us, ...)
function hist(r, name,    c) {
	c = num(r, name ".count")
	if (c == "" || c == 0 || num(r, name ".mean") == "")
		return
	hc[name] += c
	hmean[name] += c * num(r, name ".mean")
	hp50[name] += c * num(r, name ".p50")
	hp99[name] += c * num(r, name ".p99")
	if (!(name in hmax) || num(r, name ".max") > hmax[name])
		hmax[name] = num(r, name ".max")
}

function put(k, x) { printf "%s=%s\n", k, x }
function ratio(a, b) { return b > 0 ? sprintf("%.6g", a / b) : "" }

END {
	n = 0
	split("world receive execute reply idle", ph, " ")
	for (r = 1; r <= nrec; r++) {
		t = num(r, "time"); len = num(r, "interval_s")
		if (t == "" || len == "" || len <= 0)
			continue
		mid = t - len / 2
		if (mid < ws || mid > we)
			continue
		n++
		secs += len
		frames += num(r, "frames")
		req += num(r, "requests")
		rep += num(r, "replies")
		for (i = 1; i <= 5; i++)
			pns[ph[i]] += num(r, "phase_ns." ph[i])
		bin += num(r, "net.bytes_in")
		bout += num(r, "net.bytes_out")
		cin += len * num(r, "clients.in_Bps_mean")
		cout += len * num(r, "clients.out_Bps_mean")
		hist(r, "request_time_us")
		hist(r, "reply_bytes")
		hist(r, "frame_busy_us")
	}
	put("intervals", n)
	if (n == 0 || secs <= 0)
		exit
	tot = 0
	for (i = 1; i <= 5; i++)
		tot += pns[ph[i]]
	put("seconds", sprintf("%.3f", secs))
	put("fps", ratio(frames, secs))
	put("requests_per_s", ratio(req, secs))
	put("replies_per_s", ratio(rep, secs))
	put("requests_per_frame", ratio(req, frames))
	for (i = 1; i <= 5; i++)
		put("share_" ph[i], ratio(pns[ph[i]], tot))
	put("in_Bps", ratio(bin, secs))
	put("out_Bps", ratio(bout, secs))
	put("client_in_Bps", ratio(cin, secs))
	put("client_out_Bps", ratio(cout, secs))
	split("request_time_us reply_bytes frame_busy_us", hn, " ")
	for (i = 1; i <= 3; i++) {
		h = hn[i]
		put(h "_mean", ratio(hmean[h], hc[h]))
		put(h "_p50", ratio(hp50[h], hc[h]))
		put(h "_p99", ratio(hp99[h], hc[h]))
		put(h "_max", (h in hmax) ? hmax[h] : "")
	}
}
