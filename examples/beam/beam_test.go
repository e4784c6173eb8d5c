package beamtag

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/tagging"
)

func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

var _ = prism.Execute

// writeShards writes the first n sentences of the embedded CoNLL-2000 split
// into k CoNLL shards in dir (shard i holds sentences i, i+k, ...), and
// returns their paths.
func writeShards(t *testing.T, dir, split string, n, k int) []string {
	t.Helper()
	seqs, err := corpora.EmbeddedCoNLL2000(split)
	require.NoError(t, err)
	bufs := make([]bytes.Buffer, k)
	for i, s := range seqs[:n] {
		require.NoError(t, corpora.WriteCoNLL(&bufs[i%k], s))
	}
	var paths []string
	for i := range bufs {
		p := filepath.Join(dir, "shard-"+string(rune('a'+i))+".txt")
		require.NoError(t, os.WriteFile(p, bufs[i].Bytes(), 0o644))
		paths = append(paths, p)
	}
	return paths
}

// cliTag is what tagger tag writes for the file at path (its own code path:
// tagging.Stream with the CLI's read options for this model).
func cliTag(t *testing.T, m tagging.Tagger, path string, o tagging.StreamOptions, opts dataset.Options) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	r, err := dataset.NewReader(path, bytes.NewReader(b), opts)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, tagging.Stream(&out, m, r, o))
	return out.String()
}

// TestTagPipeline runs the tagging pipeline on the local runner over three
// CoNLL shards tagged by the CRF++ fixture model (word and POS columns) and
// one shard with two bad records, and checks every output file against
// tagger tag on the same input byte for byte, the dead letters (file and
// line of each bad record) and the label frequencies.
func TestTagPipeline(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	require.NoError(t, os.MkdirAll(in, 0o755))
	require.NoError(t, os.MkdirAll(out, 0o755))
	shards := writeShards(t, in, "test", 90, 3)
	// Unlabeled input for the CRF++ model: drop the gold label column.
	for _, p := range shards {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		var sb strings.Builder
		for _, line := range strings.SplitAfter(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) == 3 {
				line = f[0] + " " + f[1] + "\n"
			}
			sb.WriteString(line)
		}
		require.NoError(t, os.WriteFile(p, []byte(sb.String()), 0o644))
	}
	good := "He PRP\nsaid VBD\n\n"
	bad := good + "The DT\ncat\xff NN\n\n" + good + "big JJ\ndog NN extra\n\n" + good
	badPath := filepath.Join(in, "bad.txt")
	require.NoError(t, os.WriteFile(badPath, []byte(bad), 0o644))
	modelPath := "../../peer/testdata/conll.crfpp.gz"

	p, s := beam.NewPipelineWithRoot()
	Tag(s, TagConfig{Input: filepath.Join(in, "*.txt"), Model: modelPath, Output: out})
	res, err := ptest.RunWithMetrics(p)
	require.NoError(t, err)

	m, err := tagging.Load(modelPath)
	require.NoError(t, err)
	o := tagging.StreamOptions{Output: tagging.CoNLL, Decode: chain.DecodeOptions{N: 1}}
	opts := dataset.Options{Format: m.Reads().Format}
	var tokens int
	freq := map[string]int{}
	for _, sh := range shards {
		want := cliTag(t, m, sh, o, opts)
		got, err := os.ReadFile(filepath.Join(out, filepath.Base(sh)))
		require.NoError(t, err)
		require.Equal(t, want, string(got), sh)
		for _, line := range strings.Split(want, "\n") {
			if f := strings.Fields(line); len(f) == 3 {
				tokens++
				freq[f[2]]++
			}
		}
	}
	// The bad file: its good records, tagged as tagger tag tags them.
	goodPath := filepath.Join(dir, "good.txt")
	require.NoError(t, os.WriteFile(goodPath, []byte(good+good+good), 0o644))
	got, err := os.ReadFile(filepath.Join(out, "bad.txt"))
	require.NoError(t, err)
	want := cliTag(t, m, goodPath, o, opts)
	require.Equal(t, want, string(got))
	for _, line := range strings.Split(want, "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			tokens++
			freq[f[2]]++
		}
	}

	deadB, err := os.ReadFile(filepath.Join(out, "dead-letter.txt"))
	require.NoError(t, err)
	dead := strings.Split(strings.TrimSpace(string(deadB)), "\n")
	sort.Strings(dead)
	require.Len(t, dead, 2, string(deadB))
	require.True(t, strings.HasPrefix(dead[0], badPath+":11:"), dead[0]) // 3 columns where the record has 2
	require.True(t, strings.HasPrefix(dead[1], badPath+":5:"), dead[1])  // invalid UTF-8

	labB, err := os.ReadFile(filepath.Join(out, "labels.tsv"))
	require.NoError(t, err)
	var lines []string
	for k, v := range freq {
		lines = append(lines, k+"\t"+strconv.Itoa(v))
	}
	sort.Strings(lines)
	gotLines := strings.Split(strings.TrimSpace(string(labB)), "\n")
	sort.Strings(gotLines)
	require.Equal(t, lines, gotLines)

	qr := res.Metrics().Query(func(r beam.MetricResult) bool { return r.Namespace() == "sparsetag" })
	counters := map[string]int64{}
	for _, c := range qr.Counters() {
		counters[c.Name()] = c.Result()
	}
	require.Equal(t, int64(tokens), counters["tokens"])
	require.Equal(t, int64(2), counters["bad_records"])
	require.Equal(t, int64(90+3), counters["sequences"])
}
