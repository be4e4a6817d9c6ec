package proc

// walkTree appends to dst the processes of root and its descendants, found
// through the platform's children lists of every member. Linux documents
// its children files as possibly missing a child forked or re-parented
// while they are read; the opening and closing snapshots scan the whole
// process table instead.
func (w *watch) walkTree(root int, dst []procStat) []procStat {
	st, ok := w.reader.read(root)
	if !ok {
		return dst
	}
	start := len(dst)
	dst = append(dst, st)
	for i := start; i < len(dst); i++ {
		w.kids, _ = w.reader.reader().Children(dst[i], w.kids[:0])
		for _, kid := range w.kids {
			if st, ok := w.reader.read(kid); ok && st.PPID == dst[i].PID {
				dst = append(dst, st)
			}
		}
	}
	return dst
}
