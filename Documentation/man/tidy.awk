# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Tidy scdoc's roff for `mandoc -Tlint -W warning`: scdoc 1.11 ends every
# block with .P, also before .RE, a heading or another .P, and after a
# heading, which mandoc reports as "skipping paragraph macro". Move a .P
# past the .RE that follows it, then drop each .P that starts no
# paragraph. The rendered page is unchanged.
{ line[NR] = $0 }
END {
	for (i = 1; i < NR; i++)
		if (line[i] == ".P" && line[i + 1] == ".RE") {
			line[i] = ".RE"
			line[i + 1] = ".P"
		}
	prev = ""
	for (i = 1; i <= NR; i++) {
		if (line[i] == ".P") {
			next_line = i < NR ? line[i + 1] : ""
			if (next_line == "" || next_line ~ /^\.(SH|SS|P)( |$)/ ||
			    prev ~ /^\.(SH|SS|TH)( |$)/)
				continue
		}
		print line[i]
		prev = line[i]
	}
}
