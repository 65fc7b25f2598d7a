#!/usr/bin/env python3
"""Writes the corpus of hostile manifests that ManifestCorpusTests runs (issue 14).

    python3 scripts/make-manifest-corpus.py [OUT]     # default Tests/KBHostTests/Fixtures/manifests

Deterministic: the same files every run (a seeded generator), so a change to the corpus is a
change to this script. Each file's name says what kbhost must do with it:

    accept-*   a manifest kbhost reads
    reject-*   refused with a ManifestError (never a crash, a hang or a huge message)
    any-*      either, as long as it is one of the two

XML mutants of a valid manifest are labelled by a conforming XML parser (expat): whatever
expat rejects as not well-formed, kbhost must reject too. Binary property lists are built
object by object, so that each hostile one has exactly the flaw its name says. Cases too
big to commit (10,000 levels, 1 MB strings, files over 1 MiB) are made by the tests
themselves. Files in regressions/ (inputs a fuzzer once crashed on) are kept as they are.
"""
import os
import plistlib
import random
import shutil
import struct
import sys
from xml.parsers import expat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "Tests/KBHostTests/Fixtures/manifests")
DEPTH = 32            # PropertyList.Limits.depth: containers inside one another, the root included
STRING = 64 << 10     # PropertyList.Limits.stringBytes

BASE = {
    "CFBundleIdentifier": "dev.example.Corpus",
    "CFBundleDisplayName": "Corpus",
    "CFBundleExecutable": "libCorpus.so",
    "KBHostReadOnlyPaths": ["/usr/share/corpus"],
    "NSExtension": {
        "NSExtensionPointIdentifier": "com.apple.keyboard-service",
        "NSExtensionPrincipalClass": "CorpusViewController",
        "NSExtensionAttributes": {"PrimaryLanguage": "en-US", "IsASCIICapable": True},
    },
}
HEAD = (b'<?xml version="1.0" encoding="UTF-8"?>\n'
        b'<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n')

files = {}


def put(name, data):
    assert name not in files, name
    files[name] = data


def xml(body, head=HEAD):
    """A manifest whose root dictionary holds BASE's keys as XML, then `body`."""
    inner = plistlib.dumps(BASE).split(b"<dict>", 1)[1].rsplit(b"</dict>", 1)[0]
    return head + b'<plist version="1.0">\n<dict>' + inner + body + b"</dict>\n</plist>\n"


def well_formed(data):
    parser = expat.ParserCreate()
    try:
        parser.Parse(data, True)
        return True
    except expat.ExpatError:
        return False


def xml_cases():
    base = plistlib.dumps(BASE)
    put("accept-xml-base.plist", base)
    put("accept-xml-bom.plist", b"\xef\xbb\xbf" + base)
    put("accept-xml-comments-and-cdata.plist",
        xml(b"<!-- a comment --><key>Note</key><string><![CDATA[a <b> & c]]></string>"))
    put("accept-xml-scalars.plist",
        xml(b"<key>I</key><integer>-42</integer><key>H</key><integer>0x2A</integer><key>R</key><real>2.5e3</real>"
            b"<key>D</key><date>2001-01-01T00:00:00Z</date><key>B</key><data>AAH/\n</data><key>T</key><false/>"))
    put("accept-xml-depth-32.plist", xml(b"<key>Z</key>" + b"<array>" * (DEPTH - 1) + b"</array>" * (DEPTH - 1)))
    put("accept-xml-long-string.plist", xml(b"<key>Z</key><string>" + b"x" * STRING + b"</string>"))

    put("reject-xml-depth-33.plist", xml(b"<key>Z</key>" + b"<array>" * DEPTH + b"</array>" * DEPTH))
    put("reject-xml-depth-1000-arrays.plist", xml(b"<key>Z</key>" + b"<array>" * 1000 + b"</array>" * 1000))
    put("reject-xml-depth-1000-dicts-unclosed.plist", xml(b"<key>Z</key>" + b"<dict><key>k</key>" * 1000))
    put("reject-xml-trailing-garbage.plist", base + b"garbage")
    put("reject-xml-trailing-element.plist", base + b"<string>x</string>")
    put("reject-xml-two-roots.plist", base + b'<plist version="1.0"><dict/></plist>\n')
    put("reject-xml-missing-end.plist", base.rsplit(b"</plist>", 1)[0])
    put("reject-xml-missing-dict-end.plist", base.replace(b"</dict>\n</plist>", b"</plist>"))
    put("reject-xml-nul-in-string.plist", base.replace(b"Corpus</string>", b"Cor\x00pus</string>", 1))
    put("reject-xml-nul-charref.plist", base.replace(b"Corpus</string>", b"Cor&#0;pus</string>", 1))
    put("reject-xml-control-char.plist", base.replace(b"Corpus</string>", b"Cor\x01pus</string>", 1))
    put("reject-xml-duplicate-key.plist", xml(b"<key>CFBundleIdentifier</key><string>dev.example.Other</string>"))
    put("reject-xml-duplicate-nested-key.plist",
        base.replace(b"<key>PrimaryLanguage</key>", b"<key>PrimaryLanguage</key><string>ja-JP</string><key>PrimaryLanguage</key>", 1))
    put("reject-xml-duplicate-key-in-array.plist",
        xml(b"<key>Z</key><array><dict><key>a</key><true/><key>a</key><false/></dict></array>"))
    put("reject-xml-huge-string.plist", xml(b"<key>Z</key><string>" + b"x" * (STRING + 1) + b"</string>"))
    put("reject-xml-huge-identifier.plist",
        base.replace(b"dev.example.Corpus", b"dev.example." + b"a" * (STRING + 1), 1))
    put("reject-xml-huge-key.plist", xml(b"<key>" + b"k" * (STRING + 1) + b"</key><true/>"))
    laughs = b"".join(b'<!ENTITY l%d "&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;">' % ((i,) + (i - 1,) * 10)
                      for i in range(1, 10))
    put("reject-xml-entity-bomb.plist",
        b'<?xml version="1.0"?>\n<!DOCTYPE plist [<!ENTITY l0 "lol">' + laughs + b"]>\n"
        + xml(b"<key>Z</key><string>&l9;</string>", head=b""))
    put("reject-xml-external-entity.plist",
        b'<?xml version="1.0"?>\n<!DOCTYPE plist [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
        + xml(b"<key>Z</key><string>&x;</string>", head=b""))
    put("reject-xml-undeclared-entity.plist", xml(b"<key>Z</key><string>&nope;</string>"))
    put("reject-xml-latin1-declared.plist",
        HEAD.replace(b"UTF-8", b"ISO-8859-1") + plistlib.dumps(BASE).split(b"\n", 2)[2])
    put("reject-xml-not-utf8.plist", base.replace(b"Corpus</string>", b"Corp\xe9s</string>", 1))
    put("reject-xml-utf16.plist", base.decode().encode("utf-16"))
    put("reject-xml-unknown-element.plist", xml(b"<key>Z</key><script>x</script>"))
    put("reject-xml-text-between-values.plist", xml(b"stray text<key>Z</key><true/>"))
    put("reject-xml-key-without-value.plist", xml(b"<key>Z</key>"))
    put("reject-xml-value-without-key.plist", xml(b"<string>lonely</string>"))
    put("reject-xml-key-in-array.plist", xml(b"<key>Z</key><array><key>a</key></array>"))
    put("reject-xml-element-in-string.plist", xml(b"<key>Z</key><string>a<b/>c</string>"))
    put("reject-xml-text-in-true.plist", xml(b"<key>Z</key><true>yes</true>"))
    put("reject-xml-empty-plist.plist", HEAD + b'<plist version="1.0"></plist>\n')
    put("reject-xml-two-values-in-plist.plist", base.replace(b"</dict>\n</plist>", b"</dict><true/>\n</plist>"))
    put("reject-xml-root-not-plist.plist", HEAD + b"<dict><key>a</key><true/></dict>\n")
    put("reject-xml-root-array.plist", plistlib.dumps([BASE]))
    put("reject-xml-bad-integer.plist", xml(b"<key>Z</key><integer>12abc</integer>"))
    put("reject-xml-integer-overflow.plist", xml(b"<key>Z</key><integer>99999999999999999999999</integer>"))
    put("reject-xml-bad-real.plist", xml(b"<key>Z</key><real>one</real>"))
    put("reject-xml-bad-date.plist", xml(b"<key>Z</key><date>yesterday</date>"))
    put("reject-xml-bad-data.plist", xml(b"<key>Z</key><data>!!!</data>"))
    put("reject-xml-identifier-array.plist", base.replace(b"<string>dev.example.Corpus</string>",
                                                           b"<array><string>dev.example.Corpus</string></array>", 1))
    put("reject-xml-read-only-path-integer.plist", base.replace(b"<string>/usr/share/corpus</string>",
                                                                 b"<string>/usr/share/corpus</string><integer>7</integer>", 1))
    put("reject-not-a-plist-json.plist", b'{"CFBundleIdentifier": "dev.example.Json"}')
    put("reject-not-a-plist-passwd.plist", b"root:x:0:0:root:/root:/bin/bash\n")
    put("reject-not-a-plist-openstep.plist", b'{ CFBundleIdentifier = "dev.example.Step"; }')
    put("reject-empty.plist", b"")
    put("reject-whitespace.plist", b"  \n\t ")

    # Mutants of the valid manifest, labelled by expat.
    rng = random.Random(14)
    pieces = [b"<", b">", b"&", b"</dict>", b"<dict>", b"<array>", b"</array>", b"<key>K</key>", b"<true/>",
              b"\x00", b"\xff", b"]]>", b"<!--", b"&amp;", b"&#x41;", b"<string>", b"</plist>", b"<?x?>"]
    for i in range(260):
        data = bytearray(base)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(data))
            op = rng.randrange(5)
            if op == 0:
                del data[at:at + rng.randint(1, 12)]
            elif op == 1:
                data[at:at] = rng.choice(pieces)
            elif op == 2:
                end = min(len(data), at + rng.randint(1, 40))
                data[at:at] = data[at:end]
            elif op == 3:
                data[at] = rng.randrange(256)
            else:
                del data[at:]
                if not data:
                    data = bytearray(b"<")
        data = bytes(data)
        put(f"{'any' if well_formed(data) else 'reject'}-xml-mutant-{i:03}.plist", data)


class Binary:
    """A binary property list built object by object: references are 2 bytes, offsets 4."""

    def __init__(self):
        self.objects = []

    def add(self, data=b""):
        self.objects.append(data)
        return len(self.objects) - 1

    @staticmethod
    def head(kind, count):
        if count < 15:
            return bytes([kind << 4 | count])
        return bytes([kind << 4 | 0xF, 0x13]) + struct.pack(">Q", count)

    def string(self, text):
        raw = text.encode("ascii")
        return self.add(self.head(0x5, len(raw)) + raw)

    def array(self, refs, at=None):
        data = self.head(0xA, len(refs)) + b"".join(struct.pack(">H", r) for r in refs)
        if at is None:
            return self.add(data)
        self.objects[at] = data
        return at

    def dict(self, pairs, at=None):
        keys = [self.string(k) if isinstance(k, str) else k for k, _ in pairs]
        data = self.head(0xD, len(pairs)) + b"".join(struct.pack(">H", r) for r in keys + [v for _, v in pairs])
        if at is None:
            return self.add(data)
        self.objects[at] = data
        return at

    def value(self, v):
        if isinstance(v, bool):
            return self.add(bytes([0x09 if v else 0x08]))
        if isinstance(v, str):
            return self.string(v)
        if isinstance(v, list):
            return self.array([self.value(x) for x in v])
        return self.dict([(k, self.value(x)) for k, x in v.items()])

    def manifest(self, extra=()):
        """The top object: BASE's keys, then `extra` (key, reference) pairs."""
        return self.dict([(k, self.value(v)) for k, v in BASE.items()] + list(extra))

    def build(self, top, objects=None, table=None, offset_size=4, ref_size=2, offsets=None, magic=b"bplist00", last=None):
        """The file; `last` puts that object right before the offset table (so that it can run past its end)."""
        out = bytearray(magic)
        positions = [0] * len(self.objects)
        order = [i for i in range(len(self.objects)) if i != last] + ([last] if last is not None else [])
        for i in order:
            positions[i] = len(out)
            out += self.objects[i]
        if offsets:
            positions = [offsets.get(i, p) for i, p in enumerate(positions)]
        start = len(out)
        for p in positions:
            out += p.to_bytes(8, "big")[8 - offset_size:] if offset_size <= 8 else p.to_bytes(offset_size, "big")
        out += bytes(6) + bytes([offset_size, ref_size])
        out += struct.pack(">QQQ", len(self.objects) if objects is None else objects, top,
                           start if table is None else table)
        return bytes(out)


def binary_cases():
    base = plistlib.dumps(BASE, fmt=plistlib.FMT_BINARY)
    put("accept-bin-base.plist", base)
    b = Binary(); put("accept-bin-built.plist", b.build(b.manifest()))

    def nested(levels, shared=False):
        """`levels` arrays inside one another under the key Z; with `shared`, each holds the next twice."""
        b = Binary()
        inner = b.array([])
        for _ in range(levels - 1):
            inner = b.array([inner, inner] if shared else [inner])
        return b, b.manifest([("Z", inner)])

    b, top = nested(DEPTH - 1); put("accept-bin-depth-32.plist", b.build(top))
    # Shared objects count each time they are referred to (PropertyList.Limits.expandedBytes): 2^31 paths expand to too much.
    b, top = nested(DEPTH - 1, shared=True); put("reject-bin-depth-32-shared-2-to-the-31-paths.plist", b.build(top))
    b, top = nested(12, shared=True); put("accept-bin-depth-12-shared-2-to-the-11-paths.plist", b.build(top))
    b = Binary(); path = b.string("/usr/share/" + "d" * 16000)  # one 16 KB path named 100 times: 1.6 MB once read
    put("reject-bin-one-path-named-100-times.plist", b.build(b.manifest([(b.string("KBHostReadOnlyPaths"), b.array([path] * 100))])))
    b, top = nested(DEPTH); put("reject-bin-depth-33.plist", b.build(top))
    b, top = nested(DEPTH, shared=True); put("reject-bin-depth-33-shared.plist", b.build(top))
    b, top = nested(1000); put("reject-bin-depth-1000.plist", b.build(top))

    b = Binary(); a = b.add(); b.array([a], at=a); put("reject-bin-cycle-self.plist", b.build(b.manifest([("Z", a)])))
    b = Binary(); a = b.add(); c = b.array([a]); b.array([c], at=a)
    put("reject-bin-cycle-two.plist", b.build(b.manifest([("Z", a)])))
    b = Binary(); d = b.add(); b.dict([("me", d)], at=d); put("reject-bin-cycle-dict.plist", b.build(b.manifest([("Z", d)])))
    b = Binary(); top = b.add(); b.objects[top] = b.head(0xD, 1) + struct.pack(">HH", b.string("Z"), top)  # the root in itself
    put("reject-bin-cycle-root.plist", b.build(top))

    b = Binary(); top = b.manifest()
    put("reject-bin-offset-past-table.plist", b.build(top, offsets={0: 10 ** 6}))
    put("reject-bin-offset-into-header.plist", b.build(top, offsets={0: 3}))
    put("reject-bin-top-out-of-range.plist", b.build(len(b.objects) + 5))
    put("reject-bin-too-many-objects.plist", b.build(top, objects=2 ** 63))
    put("reject-bin-table-past-end.plist", b.build(top, table=2 ** 40))
    put("reject-bin-table-into-header.plist", b.build(top, table=2))
    put("reject-bin-offset-size-0.plist", b.build(top, offset_size=0))
    put("reject-bin-offset-size-9.plist", b.build(top, offset_size=9))
    put("reject-bin-version-15.plist", b.build(top, magic=b"bplist15"))
    full = b.build(top)
    for cut in (9, 40, len(full) // 2, len(full) - 33, len(full) - 1):
        put(f"reject-bin-truncated-{cut:04}.plist", full[:cut])
    put("reject-bin-trailer-only.plist", b"bplist00" + bytes(32))

    b = Binary(); put("reject-bin-reference-out-of-range.plist", b.build(b.manifest([("Z", 60000)])))
    b = Binary(); put("reject-bin-duplicate-key.plist", b.build(b.manifest([("CFBundleIdentifier", b.string("dev.example.Other"))])))
    b = Binary(); k = b.string("Z"); put("reject-bin-duplicate-key-same-object.plist",
                                         b.build(b.manifest([(k, b.value(True)), (k, b.value(False))])))
    b = Binary(); n = b.add(bytes([0x10, 7])); put("reject-bin-integer-key.plist", b.build(b.manifest([(n, b.value(True))])))
    b = Binary(); s = b.add(bytes([0x5F, 0x13]) + struct.pack(">Q", 2 ** 62)); put("reject-bin-length-overflow.plist", b.build(b.manifest([("Z", s)])))
    b = Binary(); s = b.add(bytes([0xAF, 0x13]) + struct.pack(">Q", 2 ** 61)); put("reject-bin-array-length-overflow.plist", b.build(b.manifest([("Z", s)])))
    b = Binary(); s = b.add(bytes([0x5F, 0x44])); put("reject-bin-length-not-an-integer.plist", b.build(b.manifest([("Z", s)])))
    b = Binary(); s = b.add(bytes([0x5E]) + b"short"); put("reject-bin-string-runs-past.plist", b.build(b.manifest([("Z", s)]), last=s))
    b = Binary(); s = b.add(bytes([0xA3, 0x00, 0x01])); put("reject-bin-array-runs-past.plist", b.build(b.manifest([("Z", s)]), last=s))
    b = Binary(); s = b.string("x" * (STRING + 1)); put("reject-bin-huge-string.plist", b.build(b.manifest([("Z", s)])))
    b = Binary(); s = b.add(bytes([0x61, 0xD8, 0x00])); put("reject-bin-lone-surrogate.plist", b.build(b.manifest([("Z", s)])))
    b = Binary(); s = b.add(bytes([0x52, 0xC3, 0xA9])); put("reject-bin-ascii-string-not-ascii.plist", b.build(b.manifest([("Z", s)])))
    for name, marker in (("null", b"\x00"), ("fill", b"\x0f"), ("set", b"\xc0"), ("uid", b"\x80\x01"),
                         ("utf8-string", b"\x71a"), ("int-32-bytes", b"\x15" + bytes(32)), ("real-1-byte", b"\x20\x00")):
        b = Binary(); o = b.add(marker); put(f"reject-bin-kind-{name}.plist", b.build(b.manifest([("Z", o)])))
    b = Binary(); put("reject-bin-identifier-is-data.plist", b.build(b.dict(
        [(k, b.add(b"\x43abc") if k == "CFBundleIdentifier" else b.value(v)) for k, v in BASE.items()])))

    rng = random.Random(1414)
    for i in range(160):
        data = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(data))
            if rng.random() < 0.7:
                data[at] = rng.randrange(256)
            else:
                data[at] = rng.choice([0x00, 0x0F, 0x5F, 0xAF, 0xDF, 0xFF, 0x13])
        put(f"any-bin-mutant-{i:03}.plist", bytes(data))


def main():
    xml_cases()
    binary_cases()
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        if name.endswith(".plist"):
            os.remove(os.path.join(OUT, name))
    for name, data in sorted(files.items()):
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    total = sum(len(d) for d in files.values())
    print(f"{len(files)} manifests, {total} bytes, in {os.path.relpath(OUT, ROOT)}")


main()
