# xsltproc (Debian's, libxslt on libxml2, /usr/bin/xsltproc, single-threaded)
# transforming a generated XML order book (orders with a customer drawn from a
# heavy-tailed distribution, a region, a date, 1-5 items each; made from the seed before
# the runs) into an HTML report of the orders per customer, a new xsltproc process per
# unit: unit i reports on the first i x PER orders (--param n), xsltproc parsing the
# whole file each time. Two stylesheets, the two classic ways to group in XSLT 1.0:
#   group=keyed: Muenchian grouping (xsl:key on the customer, generate-id), customers
#     sorted by their number of orders: the keys index the whole file every unit and the
#     grouping is near linear in n, so the cost grows slowly over a large fixed part.
#   group=naive: distinct customers found by comparing each order with all preceding
#     ones (preceding-sibling), then each customer's orders by a scan of the selection:
#     quadratic or worse in n, so the cost per unit grows steeply with i.
corpus_apt_xsltproc=(xsltproc)

run_xsltproc() {
    cat >"$DRIVERS/xslt_orders.py" <<'EOF'
"""Writes the seed's XML order book of ORDERS orders to OUT (standard library only):
each order a customer drawn heavy-tailed (Pareto), a region, a date, and 1-5 items
(sku, quantity, price). argv: orders seed out."""
import random, sys
orders, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(seed)
REG = ["north", "south", "east", "west", "centre"]
with open(out, "w") as fh:
    fh.write('<?xml version="1.0" encoding="UTF-8"?>\n<orders>\n')
    for k in range(1, orders + 1):
        fh.write(f'<order id="{k}" customer="c{int(rng.paretovariate(1.2) * 10) % 3000}" region="{rng.choice(REG)}"'
                 f' date="2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}">')
        for _ in range(rng.randint(1, 5)):
            fh.write(f'<item sku="s{rng.randint(1, 500)}" qty="{rng.randint(1, 9)}" price="{rng.uniform(1, 200):.2f}"/>')
        fh.write("</order>\n")
    fh.write("</orders>\n")
EOF

    cat >"$DRIVERS/xslt_keyed.xsl" <<'EOF'
<?xml version="1.0"?>
<!-- Orders per customer, Muenchian grouping, customers by number of orders. -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="html" indent="yes"/>
  <xsl:param name="n" select="100"/>
  <xsl:key name="by-customer" match="order" use="@customer"/>
  <xsl:variable name="sel" select="/orders/order[position() &lt;= $n]"/>
  <xsl:template match="/">
    <html><body>
      <h1>Orders: <xsl:value-of select="count($sel)"/></h1>
      <table>
        <xsl:for-each select="$sel[generate-id() = generate-id(key('by-customer', @customer)[1])]">
          <xsl:sort select="count(key('by-customer', @customer)[@id &lt;= $n])" data-type="number" order="descending"/>
          <xsl:variable name="mine" select="key('by-customer', @customer)[@id &lt;= $n]"/>
          <tr><td><xsl:value-of select="@customer"/></td><td><xsl:value-of select="count($mine)"/></td>
            <td><xsl:value-of select="sum($mine/item/@qty)"/></td>
            <td><xsl:value-of select="format-number(sum($mine/item/@price), '0.00')"/></td></tr>
        </xsl:for-each>
      </table>
    </body></html>
  </xsl:template>
</xsl:stylesheet>
EOF

    cat >"$DRIVERS/xslt_naive.xsl" <<'EOF'
<?xml version="1.0"?>
<!-- Orders per customer, grouping by comparison with all preceding orders. -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="html" indent="yes"/>
  <xsl:param name="n" select="100"/>
  <xsl:variable name="sel" select="/orders/order[position() &lt;= $n]"/>
  <xsl:template match="/">
    <html><body>
      <h1>Orders: <xsl:value-of select="count($sel)"/></h1>
      <table>
        <xsl:for-each select="$sel[not(@customer = preceding-sibling::order/@customer)]">
          <xsl:sort select="@customer"/>
          <xsl:variable name="c" select="@customer"/>
          <xsl:variable name="mine" select="$sel[@customer = $c]"/>
          <tr><td><xsl:value-of select="$c"/></td><td><xsl:value-of select="count($mine)"/></td>
            <td><xsl:value-of select="sum($mine/item/@qty)"/></td></tr>
        </xsl:for-each>
      </table>
    </body></html>
  </xsl:template>
</xsl:stylesheet>
EOF

    cat >"$DRIVERS/xslt_units.sh" <<'EOF'
#!/bin/sh
# xsltproc applying STYLESHEET to XML once per unit, unit i with --param n i*PER (the
# first i*PER orders). argv: stylesheet per units xml workdir
xsl=$1 per=$2 units=$3 xml=$4 work=$5
mkdir -p "$work"
i=1
while [ "$i" -le "$units" ]; do
    xsltproc --param n $((i * per)) -o "$work/report.html" "$xsl" "$xml"
    echo "report $i orders $((i * per)) html $(wc -c <"$work/report.html")"
    i=$((i + 1))
done
EOF
    chmod +x "$DRIVERS/xslt_units.sh"

    local v seed
    v="xsltproc $(dpkg-query -W -f='${Version}' xsltproc) (libxml2 $(dpkg-query -W -f='${Version}' libxml2))"
    for seed in 1 2 3 4 5 6 7; do
        "$PY" "$DRIVERS/xslt_orders.py" 12000 "$seed" "$INPUTS/xslt-keyed-$seed.xml"
        "$PY" "$DRIVERS/xslt_orders.py" 3500 "$seed" "$INPUTS/xslt-naive-$seed.xml"
    done
    record xsltproc "XML transformation (XSLT)" "$v" "apt:xsltproc" \
        "grows slowly over a large fixed part: Muenchian grouping of the first i x 600 orders, the whole file parsed and keyed each unit" \
        "group=keyed,per=600" '^report \d+ orders ' 3 20 natural -- \
        "$DRIVERS/xslt_units.sh" "$DRIVERS/xslt_keyed.xsl" 600 @N@ "$INPUTS/xslt-keyed-{rep}.xml" "$INPUTS/xslt-keyed-{rep}"
    record xsltproc "XML transformation (XSLT)" "$v" "apt:xsltproc" \
        "grows steeply: grouping of the first i x 250 orders by comparing each with all preceding ones (quadratic or worse)" \
        "group=naive,per=250" '^report \d+ orders ' 3 14 natural -- \
        "$DRIVERS/xslt_units.sh" "$DRIVERS/xslt_naive.xsl" 250 @N@ "$INPUTS/xslt-naive-{rep}.xml" "$INPUTS/xslt-naive-{rep}"
}
