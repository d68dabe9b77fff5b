export interface GitServer {
  url: string;
  close(): Promise<void>;
}
export function startGitServer(root: string): Promise<GitServer>;
