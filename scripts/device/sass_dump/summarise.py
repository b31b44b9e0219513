"""Each function's wgmma sequence in a cuobjdump -sass listing, one letter an instruction of interest:
H an HGMMA that does not wait, G one with the group scoreboard (gsb0: the chain's end, or a wait after each
wgmma when every one has it), A WARPGROUP.ARRIVE, D a WARPGROUP.DEPBAR that waits for every group in flight
(.LE gsb0, 0x0), d one that leaves some in flight (.LE gsb0, 0x1 or more), L an
LDSM (ldmatrix), B a BAR (block or named barrier); '.' stands for 1-15 other instructions between two of
those, ':' for 16 or more. Only functions with an HGMMA are printed."""
import re
import sys

func, seq, gap, counts = None, [], 0, {}


def flush():
    if func and counts.get("H", 0) + counts.get("G", 0) > 0:
        text = "".join(seq)
        print(f"{func}: HGMMA {counts.get('H', 0) + counts.get('G', 0)} (with gsb0 {counts.get('G', 0)}), "
              f"DEPBAR {counts.get('D', 0)} (leaving groups in flight {counts.get('d', 0)}), ARRIVE {counts.get('A', 0)}, LDSM {counts.get('L', 0)}")
        for i in range(0, len(text), 120):
            print("  " + text[i:i + 120])


for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"Function : (\S+)", line)
    if m:
        flush()
        func, seq, gap, counts = m.group(1), [], 0, {}
        continue
    m = re.match(r"\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)(.*);", line)
    if not m:
        continue
    op, rest = m.group(1), m.group(2)
    letter = None
    if op.startswith("HGMMA"):
        letter = "G" if "gsb0" in rest else "H"
    elif op.startswith("WARPGROUP.ARRIVE"):
        letter = "A"
    elif op.startswith("WARPGROUP.DEPBAR"):
        letter = "D" if re.search(r"gsb0,\s*0x0\b", rest) else "d"
    elif op.startswith("LDSM"):
        letter = "L"
    elif op.startswith("BAR"):
        letter = "B"
    if letter is None:
        gap += 1
        continue
    if seq and gap:
        seq.append("." if gap < 16 else ":")
    gap = 0
    seq.append(letter)
    counts[letter] = counts.get(letter, 0) + 1
flush()
