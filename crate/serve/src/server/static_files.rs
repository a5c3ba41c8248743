//! The playground's files: `root/index.html` at `/` (and at `/e`, the embed mode, which the page
//! recognises from its URL), and `root/web/**` at `/web/**`. No directory listings; paths with
//! `..` or `.` segments are refused before the file system is touched, and resolved files must
//! stay inside the root even through symbolic links.
//!
//! The page, the embed and the engine's sandbox frame go out with their Content-Security-Policy
//! ([`policy`]); other answers get the server's default framing headers (mod.rs).
//!
//! Text-like files (and wasm) over [`GZIP_MIN_LEN`] go out gzip-compressed to clients whose
//! `Accept-Encoding` names gzip. The compressed bytes are kept in memory per path, valid while the
//! file's length and modification time stay the same, so the engine's wasm is compressed once.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::UNIX_EPOCH;

use hyper::header::HeaderMap;
use hyper::Method;

use super::http::{self, header_value, Resp};

pub struct StaticFiles {
    root: PathBuf,
    gzipped: Mutex<HashMap<PathBuf, Gzipped>>,
}

/// A file's gzip encoding, valid for the file's length and modification time it was made from.
struct Gzipped {
    len: u64,
    mtime: u128,
    bytes: Arc<[u8]>,
}

/// Smaller files are sent as they are: gzip would save little or nothing.
pub const GZIP_MIN_LEN: u64 = 1024;

/// The file that says whether the wasm build ran: the engine's core build, which the page
/// loads first (the full one is built with it).
pub const WASM_FILE: &str = "web/pkg/whittle_core_bg.wasm";

impl StaticFiles {
    pub fn new(root: PathBuf) -> StaticFiles {
        StaticFiles {
            root,
            gzipped: Mutex::new(HashMap::new()),
        }
    }

    /// The answer to `method raw_path` (the path as sent, still percent-encoded). Blocking: it
    /// reads (and may compress) the file.
    pub fn respond(&self, method: &Method, raw_path: &str, headers: &HeaderMap) -> Resp {
        if !matches!(*method, Method::GET | Method::HEAD) {
            let mut r = http::text(
                405,
                "only GET and HEAD are served here; the compile API is under /api/\n",
            );
            http::set(&mut r, "allow", "GET, HEAD");
            return r;
        }
        let Some(path) = http::percent_decode(raw_path, false) else {
            return http::text(400, format!("bad percent-encoding in {raw_path}\n"));
        };
        match self.resolve(&path) {
            Ok(file) => {
                let mut r = self.file(headers, &file);
                if let Some(csp) = policy(&path) {
                    http::set(&mut r, "content-security-policy", csp);
                    if csp == PAGE_CSP {
                        http::set(&mut r, "x-frame-options", "SAMEORIGIN");
                    }
                }
                r
            }
            Err(Refusal::Traversal) => http::text(
                403,
                format!("refused {path}: paths may not contain `..` or `.` segments\n"),
            ),
            Err(Refusal::NotFound) => self.not_found(&path),
        }
    }

    fn resolve(&self, path: &str) -> Result<PathBuf, Refusal> {
        if matches!(path, "/" | "/index.html" | "/e" | "/e/") {
            return Ok(self.root.join("index.html"));
        }
        let Some(rest) = path.strip_prefix("/web/") else {
            return Err(Refusal::NotFound);
        };
        let mut file = self.root.join("web");
        for segment in rest.split('/') {
            match segment {
                "" => continue,
                "." | ".." => return Err(Refusal::Traversal),
                s if s.contains('\\') || s.contains('\0') => return Err(Refusal::Traversal),
                s => file.push(s),
            }
        }
        // Symbolic links may point anywhere inside the root, never outside it.
        let real = file.canonicalize().map_err(|_| Refusal::NotFound)?;
        let root = self.root.canonicalize().map_err(|_| Refusal::NotFound)?;
        if !real.starts_with(&root) {
            return Err(Refusal::Traversal);
        }
        if !real.is_file() {
            return Err(Refusal::NotFound);
        }
        Ok(real)
    }

    fn file(&self, headers: &HeaderMap, path: &Path) -> Resp {
        let (file, meta) =
            match std::fs::File::open(path).and_then(|f| f.metadata().map(|m| (f, m))) {
                Ok(x) => x,
                Err(_) => return self.not_found(&path.display().to_string()),
            };
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let compressible = is_compressible(path) && meta.len() > GZIP_MIN_LEN;
        let gzip = compressible && accepts_gzip(headers);
        // The two encodings are different representations, so they get different ETags.
        let etag = format!(
            "\"{:x}-{:x}{}\"",
            meta.len(),
            mtime,
            if gzip { "-gz" } else { "" }
        );
        let cached = header_value(headers, "if-none-match")
            .is_some_and(|v| v.split(',').any(|t| t.trim() == etag));
        // Whole bodies, so every answer has a Content-Length (measurable, resumable transfers).
        let mut response = if cached {
            http::empty(304)
        } else if gzip {
            let bytes = match self.gzipped(path, file, meta.len(), mtime) {
                Ok(b) => b,
                Err(e) => {
                    return http::text(500, format!("could not read {}: {e}\n", path.display()))
                }
            };
            let mut r = http::bytes(
                200,
                hyper::body::Bytes::from_owner(bytes),
                content_type(path),
            );
            http::set(&mut r, "content-encoding", "gzip");
            r
        } else {
            let mut raw = Vec::with_capacity(meta.len() as usize);
            let mut file = file;
            if let Err(e) = file.read_to_end(&mut raw) {
                return http::text(500, format!("could not read {}: {e}\n", path.display()));
            }
            http::bytes(200, raw, content_type(path))
        };
        if compressible {
            http::set(&mut response, "vary", "Accept-Encoding");
        }
        http::set(&mut response, "etag", &etag);
        // Revalidate every time: a rebuilt wasm must be picked up on reload.
        http::set(&mut response, "cache-control", "no-cache");
        response
    }

    /// The gzip encoding of `file` (of length `len`, modified at `mtime`), from the cache or made
    /// now. Compression runs outside the lock, so other files are served meanwhile.
    fn gzipped(
        &self,
        path: &Path,
        mut file: std::fs::File,
        len: u64,
        mtime: u128,
    ) -> std::io::Result<Arc<[u8]>> {
        let lock = || self.gzipped.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(g) = lock()
            .get(path)
            .filter(|g| g.len == len && g.mtime == mtime)
        {
            return Ok(g.bytes.clone());
        }
        let mut raw = Vec::with_capacity(len as usize);
        file.read_to_end(&mut raw)?;
        let mut encoder = flate2::write::GzEncoder::new(
            Vec::with_capacity(raw.len() / 3),
            flate2::Compression::default(),
        );
        encoder.write_all(&raw)?;
        let bytes: Arc<[u8]> = encoder.finish()?.into();
        // Keyed by path alone: a changed file replaces its stale entry instead of adding one.
        lock().insert(
            path.to_path_buf(),
            Gzipped {
                len,
                mtime,
                bytes: bytes.clone(),
            },
        );
        Ok(bytes)
    }

    fn not_found(&self, path: &str) -> Resp {
        let index = self.root.join("index.html");
        let hint = if path == "/" || path == "/e" || path == "/e/" || path == "/index.html" {
            format!("there is no {}; start whittle serve with --root <the project folder> (the one with index.html and web/)", index.display())
        } else if path.starts_with("/web/pkg/") {
            "the engine's wasm build is missing: run `npm run build` in the project folder"
                .to_string()
        } else {
            "the page is at /, the embed at /e, its files under /web/, the compile API under /api/ (try /api/compilers)".to_string()
        };
        http::text(404, format!("404 not found: {path}\n{hint}\n"))
    }
}

/// The playground (`/`): its own scripts (no inline code, no eval, no wasm: the engine runs in
/// the sandbox frame), styles (CodeMirror adds style elements), the sandbox frame; it may
/// connect anywhere, for the Compiler Explorer endpoint a person chooses (users' JavaScript
/// cannot: it runs in the sandbox, which connects nowhere); framed only by this server's pages.
pub const PAGE_CSP: &str =
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
    img-src 'self' data:; connect-src *; frame-src 'self'; base-uri 'none'; form-action 'self'; \
    frame-ancestors 'self'";

/// The embed (`/e`): as the page, but it connects only to this server (for the engine's bytes:
/// it never compiles), and any site may frame it.
pub const EMBED_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
    img-src 'self' data:; connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'self'; \
    frame-ancestors *";

/// The engine's sandbox frame (`/web/sandbox.html`), where users' JavaScript runs (generators,
/// JavaScript properties): an opaque origin (`sandbox allow-scripts`, also when opened on its
/// own), with Blob workers, eval and wasm, that can fetch nothing at all (`connect-src 'none'`)
/// and load scripts only from this server. Framed by the page and by embeds on any site.
pub const SANDBOX_CSP: &str = "sandbox allow-scripts; default-src 'none'; \
    script-src 'self' blob: 'unsafe-eval' 'wasm-unsafe-eval'; worker-src blob:; connect-src 'none'; \
    base-uri 'none'; form-action 'none'; frame-ancestors *";

/// The policy of the file at `path` (as requested), if it has its own.
pub fn policy(path: &str) -> Option<&'static str> {
    match path {
        "/" | "/index.html" => Some(PAGE_CSP),
        "/e" | "/e/" => Some(EMBED_CSP),
        "/web/sandbox.html" => Some(SANDBOX_CSP),
        _ => None,
    }
}

#[derive(Debug)]
enum Refusal {
    Traversal,
    NotFound,
}

/// Whether the client's `Accept-Encoding` allows gzip (named, and not with `q=0`).
fn accepts_gzip(headers: &HeaderMap) -> bool {
    header_value(headers, "accept-encoding").is_some_and(|v| accepts_gzip_value(&v))
}

fn accepts_gzip_value(value: &str) -> bool {
    value.split(',').any(|item| {
        let mut parts = item.split(';');
        let coding = parts.next().unwrap_or("").trim();
        let q_zero = parts.any(|p| {
            let p = p.trim();
            p.strip_prefix("q=")
                .or_else(|| p.strip_prefix("Q="))
                .and_then(|q| q.trim().parse::<f32>().ok())
                == Some(0.0)
        });
        (coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip")) && !q_zero
    })
}

/// Types that gzip shrinks (images and fonts are compressed already).
fn is_compressible(path: &Path) -> bool {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    matches!(
        ext.as_str(),
        "html" | "htm" | "js" | "mjs" | "css" | "json" | "map" | "wasm" | "svg" | "txt"
    )
}

pub fn content_type(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "ico" => "image/x-icon",
        "webp" => "image/webp",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "txt" | "md" | "c" | "h" | "cpp" | "cc" | "rs" | "java" | "sh" => {
            "text/plain; charset=utf-8"
        }
        "ts" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_inside_the_root_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("index.html"), "<p>hi").unwrap();
        std::fs::create_dir_all(dir.path().join("web/pkg")).unwrap();
        std::fs::write(dir.path().join("web/pkg/a.js"), "1").unwrap();
        std::os::unix::fs::symlink("/etc", dir.path().join("web/etc")).unwrap();
        let s = StaticFiles::new(dir.path().to_path_buf());
        assert!(s.resolve("/").unwrap().ends_with("index.html"));
        assert!(s.resolve("/e").unwrap().ends_with("index.html"));
        assert!(s.resolve("/web/pkg/a.js").is_ok());
        assert!(matches!(
            s.resolve("/web/../index.html"),
            Err(Refusal::Traversal)
        ));
        assert!(matches!(
            s.resolve("/web/pkg/../../../etc/passwd"),
            Err(Refusal::Traversal)
        ));
        assert!(matches!(
            s.resolve("/web/etc/passwd"),
            Err(Refusal::Traversal)
        ));
        assert!(matches!(s.resolve("/web/pkg"), Err(Refusal::NotFound)));
        assert!(matches!(s.resolve("/nope"), Err(Refusal::NotFound)));
    }

    #[test]
    fn policies() {
        assert!(policy("/").unwrap().contains("frame-ancestors 'self'"));
        assert!(policy("/").unwrap().contains("connect-src *"));
        assert!(policy("/e").unwrap().contains("frame-ancestors *"));
        assert!(policy("/e").unwrap().contains("connect-src 'self'"));
        let sandbox = policy("/web/sandbox.html").unwrap();
        assert!(
            sandbox.starts_with("sandbox allow-scripts;") && sandbox.contains("connect-src 'none'")
        );
        assert_eq!(policy("/web/dist/main.js"), None);
    }

    #[test]
    fn content_types() {
        assert_eq!(content_type(Path::new("a.wasm")), "application/wasm");
        assert_eq!(
            content_type(Path::new("a.mjs")),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(content_type(Path::new("a.svg")), "image/svg+xml");
    }

    #[test]
    fn accept_encoding() {
        assert!(accepts_gzip_value("gzip, deflate, br"));
        assert!(accepts_gzip_value("br;q=1.0, GZIP;q=0.5"));
        assert!(!accepts_gzip_value("gzip;q=0"));
        assert!(!accepts_gzip_value("identity"));
        assert!(!accepts_gzip_value(""));
        assert!(is_compressible(Path::new("a.wasm")) && !is_compressible(Path::new("a.png")));
    }
}
