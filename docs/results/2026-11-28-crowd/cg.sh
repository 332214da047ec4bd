#!/bin/sh
# cg.sh BIN TAG PLAYERS MAP FRAMES -- one framebench run under callgrind.
#
# Design note: 10 rounds of warm-up, FRAMES measured; the profile and
# framebench's report (with its digests) land in the current directory
# as cg.TAG.PLAYERS.MAPNAME.FRAMES.{out,log}, which cgdiff.py subtracts.
BIN=$1; TAG=$2; P=$3; MAP=$4; F=$5
name=cg.$TAG.$P.$(basename "$MAP" .bsp).$F
valgrind --tool=callgrind --callgrind-out-file="$PWD/$name.out" "$BIN" \
	--players "$P" --frames "$F" --warmup 10 --map "$MAP" > "$PWD/$name.log" 2>&1
