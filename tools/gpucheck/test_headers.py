import pathlib
import tempfile
import unittest

from gpucheck import headers


class ReadExpectationTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.dir.name)

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, text):
        path = self.root / name
        path.write_text(text)
        return path

    def test_python_header(self):
        path = self.write("a.py", "# expect-verdict: invalid\n# expect-reason: side_stream\n"
                                  "# expect-message: one part\n# why\nimport torch\n"
                                  "# expect-reason: ignored after the header\n")
        expectation = headers.read_expectation(path)
        self.assertEqual((expectation.verdict, expectation.reason, expectation.messages),
                         ("invalid", "side_stream", ["one part"]))

    def test_cuda_header(self):
        path = self.write("a.cu", "// expect-verdict: invalid\n// expect-reason: cached_work\n")
        self.assertEqual(headers.read_expectation(path).reason, "cached_work")

    def test_a_file_without_header_must_pass(self):
        expectation = headers.read_expectation(self.write("legit.py", "import torch\n"))
        self.assertEqual((expectation.verdict, expectation.reason), ("passed", ""))


if __name__ == "__main__":
    unittest.main()
