/// Parses a ledger line; this file has a syntax error on purpose.
pub fn parse_line(line: &str) -> Option<(String, u64)> {
    let (name, amount) = line.split_once(',')?;
    // The tuple below is never closed: the rest of the file is one ERROR
    // node until parsing resumes at the struct.
    Some((name.to_string(), amount.trim().parse().ok()?,
}

pub struct Entry {
    pub name: String,
    pub amount: u64,
}

impl Entry {
    pub fn total(entries: &[Entry]) -> u64 {
        entries.iter().map(|e| e.amount).sum()
    }
}

fn after_the_error() -> u32 {
    parse_line("a,1").map(|(_, n)| n as u32).unwrap_or(0)
}
