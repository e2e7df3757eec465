import type {
  FilesClosed, FilesCreated, FilesFolder, FilesOpened, FilesRenamed, FilesRoots, FilesSaved,
} from '../../../adapters/http/consoleFilesApi.js'
import { consoleRequest } from '../request.js'

/** The editor's file calls (contract in adapters/http/consoleFilesApi.ts), as the person (the session cookie). */
export class FilesApi {
  roots(): Promise<FilesRoots> {
    return consoleRequest('GET', '/console/api/files/roots')
  }

  list(path: string): Promise<FilesFolder> {
    return consoleRequest('GET', `/console/api/files/list?path=${encodeURIComponent(path)}`)
  }

  open(path: string, window: string): Promise<FilesOpened> {
    return consoleRequest('POST', '/console/api/files/open', { path, window })
  }

  create(path: string, type: 'file' | 'directory', window: string): Promise<FilesCreated> {
    return consoleRequest('POST', '/console/api/files/create', { path, type, window })
  }

  rename(from: string, to: string): Promise<FilesRenamed> {
    return consoleRequest('POST', '/console/api/files/rename', { from, to })
  }

  newTab(window: string): Promise<FilesOpened> {
    return consoleRequest('POST', '/console/api/tabs/new', { window })
  }

  save(tabId: string): Promise<FilesSaved> {
    return consoleRequest('POST', `/console/api/tabs/${encodeURIComponent(tabId)}/save`, {})
  }

  saveAs(tabId: string, path: string): Promise<FilesSaved> {
    return consoleRequest('POST', `/console/api/tabs/${encodeURIComponent(tabId)}/save-as`, { path })
  }

  close(tabId: string, force: boolean): Promise<FilesClosed> {
    return consoleRequest('POST', `/console/api/tabs/${encodeURIComponent(tabId)}/close`, { force })
  }
}
