# tests/interop/lib/ktx.sh -- MVDSV with KTX as the interop scripts run it.
#
# Design note: sourced by the scripts that compare qwd with MVDSV 0.35+KTX
# (mvd.sh, ezquake-pause.sh, match-ktx.sh, antilag-mvdsv.sh).  The Debian packages put MVDSV's binary
# where `dpkg -L mvdsv` says, KTX's game module in /usr/lib/quakeworld/ktx
# and its configs in /usr/share/games/quake/ktx; a server needs them under
# one base directory's game folder "ktx", and the project's maps in id1.
# ezQuake on the client data build/mkassets makes needs a box model for
# every model KTX precaches as well as ours (the names are read from the
# module's strings).  A scripted duel (ktx_duel_configs) needs KTX's
# configs as copies, not links: KTX runs them again whenever the server
# empties, so what a script changes must be in the files themselves.

# ktx_missing: the Debian packages a KTX comparison needs that are not
# installed ("mvdsv ktx ktx-data"), or nothing
ktx_missing() {
	[ -x /usr/games/mvdsv ] || printf ' mvdsv'
	[ -f /usr/lib/quakeworld/ktx/qwprogs.so ] || printf ' ktx'
	[ -d /usr/share/games/quake/ktx ] || printf ' ktx-data'
}

# wait_udp PORT: until something listens on the UDP port (10 s at most)
wait_udp() {
	_i=0
	while [ $_i -lt 40 ] && ! ss -Hlun "sport = :$1" 2>/dev/null | grep -q .; do
		sleep 0.25
		_i=$((_i + 1))
	done
}

# the MVDSV binary, or nothing when the package is absent
mvdsv_binary() {
	dpkg -L mvdsv 2>/dev/null | grep '/mvdsv$' | head -1
}

# ktx_base DIR: DIR/ktx holds KTX (links), DIR/id1/maps the project's maps
ktx_base() {
	mkdir -p "$1/id1/maps" "$1/ktx"
	cp build/maps/*.bsp "$1/id1/maps/"
	for f in /usr/share/games/quake/ktx/*; do
		ln -s "$f" "$1/ktx/$(basename "$f")"
	done
	[ -e "$1/ktx/qwprogs.so" ] || ln -s /usr/lib/quakeworld/ktx/qwprogs.so "$1/ktx/qwprogs.so"
}

# ktx_duel_configs DIR: in DIR/ktx (made by ktx_base), KTX's configs
# copied and its ktx.cfg set to a duel by default (k_mode 1, k_defmode
# 1on1) with a 3 s countdown (k_count 3); a script adds its own settings to
# DIR/ktx/configs/usermodes/1on1/default.cfg, which KTX runs after its
# duel's
ktx_duel_configs() {
	rm -f "$1/ktx/ktx.cfg" "$1/ktx/configs"
	cp -r /usr/share/games/quake/ktx/configs "$1/ktx/configs"
	sed -e 's/^set k_count .*/set k_count 3/' -e 's/^set k_mode .*/set k_mode 1/' \
		-e 's/^set k_defmode .*/set k_defmode 1on1/' \
		/usr/share/games/quake/ktx/ktx.cfg >"$1/ktx/ktx.cfg"
}

# ktx_client_data BUILD DIR: client data for ezQuake on MVDSV+KTX
ktx_client_data() {
	"$1/mkassets" "$2" build/maps/small.bsp $(strings \
		/usr/lib/quakeworld/ktx/qwprogs.so | grep -E '^progs/[a-z0-9_]+\.(mdl|spr)$' |
		sort -u) >/dev/null
	mkdir -p "$2/id1/maps" "$2/qw"
	cp build/maps/*.bsp "$2/id1/maps/"
}
