//! A folder's files as one text: what a folder session's queries carry (one test sees the
//! whole tree) and what its cache hashes. Each file is a header line `LEN PATH` (LEN the
//! byte length of its contents) followed by the contents, so any text round-trips.

const MAGIC: &str = "whittle-folder 1\n";

/// The files as one text, in the order given.
pub fn encode<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut out = String::from(MAGIC);
    for (path, text) in files {
        out.push_str(&format!("{} {path}\n", text.len()));
        out.push_str(text);
    }
    out
}

/// The files of a text [`encode`] made: `(path, contents)`; `None` if it is not one.
pub fn decode(bundle: &str) -> Option<Vec<(String, String)>> {
    let mut rest = bundle.strip_prefix(MAGIC)?;
    let mut files = Vec::new();
    while !rest.is_empty() {
        let (header, after) = rest.split_once('\n')?;
        let (len, path) = header.split_once(' ')?;
        let len: usize = len.parse().ok()?;
        let text = after.get(..len)?;
        files.push((path.to_string(), text.to_string()));
        rest = &after[len..];
    }
    Some(files)
}

#[cfg(test)]
mod tests {
    #[test]
    fn any_text_round_trips() {
        let files = [
            ("a.c", "int x;\n12 b.h\n"),
            ("dir/b.h", ""),
            ("c d.h", "é\n"),
        ];
        let text = super::encode(files);
        let back = super::decode(&text).unwrap();
        let back: Vec<(&str, &str)> = back.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
        assert_eq!(back, files);
        assert!(super::decode("int x;").is_none());
        assert!(super::decode(&text[..text.len() - 1]).is_none());
    }
}
